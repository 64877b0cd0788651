export { fail, ok, providerNotFound, providerTimeout, providerUnavailable } from './errors.ts';
export { guardProvider } from './guarded.ts';
export type {
  AgentLink,
  Conversation,
  ConversationDetails,
  PlaceCallRequest,
  PlacedCall,
  ProviderEndStatus,
  ProviderError,
  ProviderEvent,
  ProviderHealth,
  ProviderInsight,
  ProviderObserver,
  ProviderOutcome,
  ProviderResult,
  ProviderStatus,
  ProviderTurn,
  VoiceProvider,
} from './interface.ts';
export { providerForMode } from './mode.ts';
export { pick, randomNanpNumber, rng } from './random.ts';
