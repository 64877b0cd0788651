import { SegmentedMessage } from 'sms-segments-calculator';

/**
 * The longest message we send: 10 segments (1,530 GSM-7 characters, 670 UCS-2). Carriers reassemble longer
 * concatenations unreliably and Twilio advises against them; a longer text is refused, not cut.
 */
export const MAX_SEGMENTS = 10;

export type MeasuredBody = { encoding: 'GSM-7' | 'UCS-2'; segments: number; characters: number };

/**
 * How a text travels: GSM-7 when every character is in the GSM 03.38 alphabet (its extension characters, such as
 * `€` and `{`, take two septets), else UCS-2; and in how many segments (160/70 characters alone, 153/67 each when
 * concatenated). Twilio's own calculator, so our count is the one it bills.
 */
export function measureBody(body: string): MeasuredBody {
  const m = new SegmentedMessage(body, 'auto');
  return {
    encoding: m.encodingName === 'UCS-2' ? 'UCS-2' : 'GSM-7',
    segments: Math.max(1, m.segmentsCount),
    characters: m.numberOfCharacters,
  };
}
