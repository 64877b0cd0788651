/**
 * A urlencoded form as a plain object of strings: a repeated key keeps its last value. `fromEntries` defines each
 * key as the object's own, so a `__proto__` field is a field like any other.
 */
export const parseForm = (text: string): Record<string, string> =>
  Object.fromEntries(new URLSearchParams(text));

/** The form parseForm made of a request's body, or an empty one when it had none. */
export const formOf = (body: unknown): Record<string, string> =>
  typeof body === 'object' && body !== null ? (body as Record<string, string>) : {};
