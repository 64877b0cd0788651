import type { ProviderError, ProviderResult } from './interface.ts';

export const ok = <T>(value: T): ProviderResult<T> => ({ ok: true, value });

export const providerUnavailable = (detail = 'The voice provider is unavailable.'): ProviderError => ({
  code: 'unavailable',
  retryable: true,
  detail,
});

export const providerTimeout = (ms: number): ProviderError => ({
  code: 'timeout',
  retryable: true,
  detail: `The voice provider did not answer within ${ms} ms.`,
});

export const providerNotFound = (what: string): ProviderError => ({
  code: 'not_found',
  retryable: false,
  detail: `The voice provider does not know ${what}.`,
});

export const fail = <T>(error: ProviderError): ProviderResult<T> => ({ ok: false, error });
