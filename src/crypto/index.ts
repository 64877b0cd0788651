export type { SecretBox } from './secret-box.ts';
export { createSecretBox } from './secret-box.ts';
