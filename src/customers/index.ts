export type { CallDataSettings, RetentionBounds, RetentionChoice } from './call-data.ts';
export { KEEP_FOREVER, retentionDays } from './call-data.ts';
export { redactsCallData } from './call-data-reads.ts';
export type { AuthCustomer } from './customer-reads.ts';
export {
  customerNameOf,
  ensureTestTwin,
  findAuthCustomer,
  findCustomer,
  findLimits,
  isLiveCustomer,
  oldestCustomerIds,
} from './customer-reads.ts';
export type { CustomersService, CustomerView } from './customers.service.ts';
export { createCustomersService } from './customers.service.ts';
export { seedCustomers } from './customers-seed.ts';
export { customerMaxDailyCap } from './outbound-cap.repository.ts';
