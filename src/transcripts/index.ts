export { transcriptTexts } from './transcript-texts.ts';
export { registerTranscriptRoutes } from './transcripts.routes.ts';
export { webhookTranscriptSchema } from './transcripts.schema.ts';
export type { FetchResult, TranscriptsService } from './transcripts.service.ts';
export { createTranscriptsService, transcriptReadyData } from './transcripts.service.ts';
