export { startEmbeddedVacuum } from './embedded-vacuum.ts';
export { purgeExpired } from './retention.ts';
