import { type Logger, pino } from 'pino';

/** JSON logs; anything that could hold a credential is censored by path as a second line of defence. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          'authorization',
          '*.secret',
          'secret',
          'key',
        ],
        censor: '[REDACTED]',
      },
    },
    destination,
  );
}
