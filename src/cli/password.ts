import { AppError } from '../errors/index.ts';

/** Reads the password: the first line of stdin (--password-stdin), or typed at a terminal without echo. */
export async function readPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return (Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '').trimEnd();
  }
  if (!process.stdin.isTTY) {
    throw new AppError(
      'input.invalid',
      'No terminal to type the password in: pipe it with --password-stdin.',
    );
  }
  const ask = (prompt: string) =>
    new Promise<string>((resolve, reject) => {
      process.stderr.write(prompt);
      const stdin = process.stdin;
      let value = '';
      stdin.setRawMode(true);
      stdin.resume();
      stdin.setEncoding('utf8');
      const onData = (key: string) => {
        for (const ch of key) {
          if (ch === '\r' || ch === '\n') {
            stdin.off('data', onData);
            stdin.setRawMode(false);
            stdin.pause();
            process.stderr.write('\n');
            resolve(value);
            return;
          }
          if (ch === '\u0003') {
            stdin.setRawMode(false);
            reject(new Error('cancelled'));
            return;
          }
          if (ch === '\u007f') value = value.slice(0, -1);
          else value += ch;
        }
      };
      stdin.on('data', onData);
    });
  const first = await ask('Password: ');
  const again = await ask('Repeat password: ');
  if (first !== again) throw new AppError('input.invalid', 'The passwords do not match.');
  return first;
}
