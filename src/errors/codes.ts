/**
 * The closed set of error codes. The first block is spec section 7; the rest fill gaps the spec
 * leaves open and are documented in docs/errors.md and docs/spec-decisions.md.
 */
export const errorStatus = {
  'auth.missing': 401,
  'auth.invalid': 401,
  'auth.revoked': 401,
  'auth.expired': 401,
  'perm.denied': 403,
  'rate.exceeded': 429,
  'rate.exceeded_key': 429,
  'input.invalid': 422,
  'resource.not_found': 404,
  'resource.conflict': 409,
  'carrier.unavailable': 502,
  'internal.error': 500,
  // Ours: where the spec names no code.
  'auth.throttled': 429,
  'rate.exceeded_ip': 429,
  'transport.insecure': 403,
  'input.malformed': 400,
  'input.unsupported_media_type': 415,
  'input.too_large': 413,
  'input.headers_too_large': 431,
  'input.timeout': 408,
  'route.not_found': 404,
  'route.method_not_allowed': 405,
  'service.unavailable': 503,
  // Outbound calls and transcripts; see docs/spec-decisions.md.
  'outbound.country_not_allowed': 403,
  'outbound.number_not_allowed': 403,
  'outbound.spend_cap_exceeded': 402,
  'outbound.assistant_inactive': 422,
  'outbound.assistant_no_phone_number': 422,
  // Call data lifecycle (DELETE /calls/{id}); see docs/call-data.md.
  'call.in_progress': 409,
  // PROVIDER=elevenlabs; see docs/provider-elevenlabs.md.
  'assistant.not_linked': 422,
  'carrier.busy': 503,
  'provider.signature_invalid': 401,
  'provider.payload_invalid': 400,
  'transcript.not_found': 404,
  // Text messages (POST /sms/send); see docs/sms.md.
  'sms.body_empty': 422,
  'sms.body_too_long': 422,
  'sms.number_unreachable': 422,
  'sms.recipient_opted_out': 422,
  'sms.sender_unavailable': 422,
} as const;

export type ErrorCode = keyof typeof errorStatus;
