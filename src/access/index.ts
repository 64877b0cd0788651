export { registerGuard } from './guard.ts';
