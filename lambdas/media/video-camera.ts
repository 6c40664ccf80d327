import { invalidVideo } from './media-errors.js';

/**
 * Camera commands in a video prompt (docs/interface.md §4.9; docs/upstreams.md §6.4). The
 * interface lists nine; MiniMax understands fifteen, and up to three combined in one bracket
 * (`[Pan left,Zoom in]`).
 * All fifteen are accepted, matched without regard to case or spacing and written in
 * MiniMax's spelling. A bracket that opens with a camera verb is read as commands and must
 * hold one to three known ones, so a typo (`[Pan up]`) is a 400 rather than text the model
 * would film; any other bracketed text (`[sunset]`, the simulators' `[sim:...]` directives)
 * is prompt text and passes unchanged.
 */
export const CAMERA_COMMANDS: readonly string[] = [
  'Push in',
  'Pull out',
  'Zoom in',
  'Zoom out',
  'Pan left',
  'Pan right',
  'Tilt up',
  'Tilt down',
  'Truck left',
  'Truck right',
  'Pedestal up',
  'Pedestal down',
  'Shake',
  'Tracking shot',
  'Static shot',
];

export const MAX_COMMANDS_PER_BRACKET = 3;

const COMMAND_BY_KEY: ReadonlyMap<string, string> = new Map(
  CAMERA_COMMANDS.map((command) => [keyOf(command), command]),
);
const CAMERA_VERBS: ReadonlySet<string> = new Set(CAMERA_COMMANDS.map((command) => keyOf(command).split(' ')[0]!));
const BRACKET = /\[([^[\]]*)\]/g;

function keyOf(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, ' ');
}

/** The prompt with its camera commands in MiniMax's spelling; throws for a malformed command. */
export function normalizeCameraCommands(prompt: string): string {
  return prompt.replace(BRACKET, (bracket, inner: string) => {
    const items = inner.split(',').map(keyOf);
    if (!CAMERA_VERBS.has(items[0]!.split(' ')[0]!)) return bracket;
    if (items.length > MAX_COMMANDS_PER_BRACKET)
      throw invalidVideo(
        'prompt',
        `at most ${MAX_COMMANDS_PER_BRACKET} camera commands in one bracket, got ${items.length}`,
      );
    return `[${items.map(commandOf).join(',')}]`;
  });
}

function commandOf(key: string): string {
  const command = COMMAND_BY_KEY.get(key);
  if (command) return command;
  throw invalidVideo(
    'prompt',
    `"${key}" is not a camera command; a bracket starting with a camera verb holds commands from: ${CAMERA_COMMANDS.join(', ')}`,
  );
}
