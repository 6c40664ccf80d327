/**
 * Reads what an agent was shown of its peers the way a careful model would, written apart from
 * the code under test: the width the system message states, then the arena's user turn line by
 * line. Outside a fence only blank lines, headings and label lines may stand; each label is
 * followed by an opening fence line, and the answer runs to the first closing line of that width.
 * Anything else is a forged or broken view and throws.
 */

/** One answer as a reader finds it: the heading above it, its label and the fenced text. */
export interface ShownAnswer {
  readonly heading?: string;
  readonly label: string;
  readonly text: string;
}

const HEADING = /^(Answers of round \d+:|Answers already given in this round:)$/;
/** A peer view's label line; a ballot's is `BALLOT_LABEL`. */
export const PEER_LABEL = /^(Winning answer of round \d+, by )?Agent \d+( \(you\))?:$/;
export const BALLOT_LABEL = /^Answer [A-Z]:$/;
const WIDTH = /a line of exactly (\d+) < characters and a line of exactly (\d+) > characters/;

/** The fence width a system (or ballot) brief states; throws when it states none. */
export function statedWidth(brief: string): number {
  const match = WIDTH.exec(brief);
  if (!match || match[1] !== match[2]) throw new Error(`the brief states no fence width: ${brief}`);
  return Number(match[1]);
}

/** The answers in `view`, fenced at `width`; throws at the first line that breaks the layout. */
export function readView(view: string, width: number, label: RegExp = PEER_LABEL): ShownAnswer[] {
  const open = '<'.repeat(width);
  const close = '>'.repeat(width);
  const lines = view.split('\n');
  const shown: ShownAnswer[] = [];
  let heading: string | undefined;
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at]!;
    if (line === '') continue;
    if (HEADING.test(line)) {
      heading = line;
      continue;
    }
    if (!label.test(line)) throw new Error(`line ${at} stands outside any fence: ${JSON.stringify(line)}`);
    if (lines[at + 1] !== open) throw new Error(`label ${JSON.stringify(line)} is not followed by its fence`);
    const end = lines.indexOf(close, at + 2);
    if (end < 0) throw new Error(`the fence after ${JSON.stringify(line)} is never closed`);
    shown.push({
      ...(heading === undefined ? {} : { heading }),
      label: line,
      text: lines.slice(at + 2, end).join('\n'),
    });
    at = end;
  }
  return shown;
}

/** Whether `text` holds a line that is exactly a fence line of `width`. */
export function holdsFenceLine(text: string, width: number): boolean {
  return text.split('\n').some((line) => line === '<'.repeat(width) || line === '>'.repeat(width));
}
