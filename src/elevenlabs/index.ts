export { createAgentLinksService } from './agent-links.service.ts';
export type { ElevenLabsSettings } from './elevenlabs.ts';
export { createElevenLabs } from './elevenlabs.ts';
export { webhookExposureWarning } from './exposure.ts';
