import type { VoiceProvider } from './interface.ts';

/**
 * Which provider a call's mode goes to: live calls to PROVIDER, test-mode calls (`livemode` false) always to the
 * built-in simulator, so a `svc_test_` key never reaches a real provider. `testProvider` is absent when PROVIDER
 * is the simulator itself.
 */
export const providerForMode = (
  deps: { provider: VoiceProvider; testProvider?: VoiceProvider | undefined },
  livemode: boolean,
): VoiceProvider => (livemode ? deps.provider : (deps.testProvider ?? deps.provider));
