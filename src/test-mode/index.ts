export { createTestInbound, registerTestInboundCalls } from './test-inbound.routes.ts';
