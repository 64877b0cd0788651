import type { components, operations, webhooks } from './schema.d.ts';

/** Every type here comes from the generated OpenAPI types (schema.d.ts); none is written by hand. */
type Schemas = components['schemas'];

export type Identity = Schemas['Identity'];
export type Assistant = Schemas['Assistant'];
export type AssistantsPage = Schemas['AssistantsPage'];
export type Call = Schemas['Call'];
export type CallDetail = Schemas['CallDetail'];
export type CallsPage = Schemas['CallsPage'];
export type OutboundCall = Schemas['OutboundCall'];
export type OutboundDryRun = Schemas['OutboundDryRun'];
export type Transcript = Schemas['Transcript'];
export type TranscriptPending = Schemas['TranscriptPending'];
export type WebhookSubscription = Schemas['WebhookSubscription'];
export type WebhookSubscriptionsPage = Schemas['WebhookSubscriptionsPage'];
export type RotatedWebhookSecret = Schemas['RotatedWebhookSecret'];
export type WebhookEventsPage = Schemas['WebhookEventsPage'];
export type WebhookEventRecord = WebhookEventsPage['data'][number];
export type Problem = Schemas['Problem'];
export type Message = Schemas['Message'];
export type MessageDetail = Schemas['MessageDetail'];
export type MessagesPage = Schemas['MessagesPage'];
export type SmsDryRun = Schemas['SmsDryRun'];

export type CallCompletedEvent = Schemas['CallCompletedEvent'];
export type CallInsightReceivedEvent = Schemas['CallInsightReceivedEvent'];
export type CallTranscriptReadyEvent = Schemas['CallTranscriptReadyEvent'];
export type SmsSentEvent = Schemas['SmsSentEvent'];
export type SmsReceivedEvent = Schemas['SmsReceivedEvent'];
/** A delivered webhook body: switch on `event` to narrow `data`. */
export type WebhookEvent =
  | CallCompletedEvent
  | CallInsightReceivedEvent
  | CallTranscriptReadyEvent
  | SmsSentEvent
  | SmsReceivedEvent;
export type WebhookEventName = keyof webhooks;

type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;
type Body<Op extends keyof operations> = operations[Op] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type ListAssistantsQuery = Query<'listAssistants'>;
export type ListCallsQuery = Query<'listCalls'>;
export type ExportCallsQuery = Query<'exportCalls'>;
export type ListWebhookSubscriptionsQuery = Query<'listWebhookSubscriptions'>;
export type ListWebhookEventsQuery = Query<'listWebhookEvents'>;
export type CreateOutboundCall = Body<'createOutboundCall'>;
export type CreateWebhookSubscription = Body<'createWebhookSubscription'>;
export type CreateTestInboundCall = Body<'createTestInboundCall'>;
export type SendSms = Body<'sendSms'>;
export type ListMessagesQuery = Query<'listMessages'>;
export type CreateTestInboundSms = Body<'createTestInboundSms'>;

type ResponsesOf<Op extends keyof operations> = operations[Op]['responses'];
type ProblemBodies<R> = R extends { content: { 'application/problem+json': infer B } } ? B : never;
type CodeOf<B> = B extends { code: infer C } ? C : never;
/** Every problem `code` the API documents, for exhaustive handling; unknown future codes are plain strings. */
export type ProblemCode = CodeOf<
  ProblemBodies<{ [Op in keyof operations]: ResponsesOf<Op>[keyof ResponsesOf<Op>] }[keyof operations]>
>;
