export { seedDemo } from './seed-demo.ts';
export { simulateInboundCalls } from './simulate-inbound.ts';
