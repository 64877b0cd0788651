export type { Simulator } from './simulator.ts';
export { createSimulator } from './simulator.ts';
export { runProviderTick, startSimulatorLoop } from './simulator-loop.ts';
export { archivedInput, buildScript, conversationIdFor } from './simulator-script.ts';
export { createSmsSimulator, SMS_TEST_NUMBERS, type SmsSimulator } from './sms-simulator.ts';
