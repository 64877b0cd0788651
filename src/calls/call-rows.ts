import type { findCallRow, listCallRows } from './calls.read.repository.ts';

/** A call as the list and the detail read it: the shapes the views map to the API, named apart from the SQL. */
export type CallListRow = Awaited<ReturnType<typeof listCallRows>>[number];
export type CallDetailRow = NonNullable<Awaited<ReturnType<typeof findCallRow>>>;
