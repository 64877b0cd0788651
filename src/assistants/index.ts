export {
  allAssistantNumbers,
  assistantForNumber,
  assistantLanguageOf,
  assistantNameOf,
  assistantNumbers,
  inboundTargets,
  randomInboundTarget,
} from './assistant-refs.repository.ts';
export { findAssistant } from './assistants.repository.ts';
export { registerListAssistants } from './assistants.routes.ts';
export type { AssistantsService } from './assistants.service.ts';
export { createAssistantsService } from './assistants.service.ts';
export type { AssistantView } from './assistants.views.ts';
export { seedAssistants } from './assistants-seed.ts';
