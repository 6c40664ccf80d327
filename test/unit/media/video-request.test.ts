import fc from 'fast-check';
import { CAMERA_COMMANDS } from '../../../lambdas/media/video-camera.js';
import { MediaError } from '../../../lambdas/media/media-errors.js';
import { checkVideoHosts, parseVideoRequest } from '../../../lambdas/media/video-request.js';
import type { HostLookup } from '../../../lambdas/schema/public-url.js';
import { videoGenerationBody } from '../../../lambdas/media/video-task.js';

/**
 * The video submit body (docs/interface.md §4.9) checked and translated for MiniMax: defaults, the
 * translations the adapter makes, and one refusal per rule naming its field.
 */
const refusalOf = (body: unknown) => {
  try {
    parseVideoRequest(body);
  } catch (error) {
    expect(error).toBeInstanceOf(MediaError);
    expect((error as MediaError).kind).toBe('invalid_request');
    return { field: (error as MediaError).details.field, message: (error as MediaError).message };
  }
  throw new Error('accepted');
};

test('defaults: minimax-video-2.3, 6 s at the interface’s 1080P, prompt optimizer on', () => {
  const request = parseVideoRequest({ prompt: 'a cat on a wall' });
  expect(request).toEqual({
    model: 'minimax-video-2.3',
    prompt: 'a cat on a wall',
    duration: 6,
    resolution: '1080P',
    promptOptimizer: true,
  });
  expect(videoGenerationBody(request)).toEqual({
    model: 'MiniMax-Hailuo-2.3',
    prompt: 'a cat on a wall',
    duration: 6,
    resolution: '1080P',
    prompt_optimizer: true,
  });
});

test('translations: 10 s without a resolution is made at 768P, 720P is made at 768P, -Fast takes a first frame', () => {
  expect(parseVideoRequest({ prompt: 'p', duration: 10 }).resolution).toBe('768P');
  expect(parseVideoRequest({ prompt: 'p', resolution: '720P', duration: 10 }).resolution).toBe('768P');
  expect(parseVideoRequest({ prompt: 'p', resolution: '768P' }).resolution).toBe('768P');
  // The limit counts characters, not UTF-16 units.
  expect(parseVideoRequest({ prompt: '🎬'.repeat(2000) }).prompt).toHaveLength(4000);
  const fast = parseVideoRequest({
    prompt: 'p',
    model: 'minimax-video-2.3-Fast',
    first_frame_image: 'https://img.example.com/a.png',
    prompt_optimizer: false,
  });
  expect(videoGenerationBody(fast)).toMatchObject({
    model: 'MiniMax-Hailuo-2.3-Fast',
    first_frame_image: 'https://img.example.com/a.png',
    prompt_optimizer: false,
  });
});

test('camera commands are written in MiniMax’s spelling; other bracketed text passes unchanged', () => {
  const { prompt } = parseVideoRequest({
    prompt: '[push IN] a cat [ pan  left ,zoom out, Shake] at [sunset] [sim:polls=2] [Static shot]',
  });
  expect(prompt).toBe('[Push in] a cat [Pan left,Zoom out,Shake] at [sunset] [sim:polls=2] [Static shot]');
  for (const command of CAMERA_COMMANDS)
    expect(parseVideoRequest({ prompt: `[${command}]` }).prompt).toBe(`[${command}]`);
});

test.each([
  ['a body that is not an object', [], 'body'],
  ['an unknown field', { prompt: 'p', resolutoin: '768P' }, 'resolutoin'],
  ['no prompt', {}, 'prompt'],
  ['a prompt that is not a string', { prompt: 42 }, 'prompt'],
  ['a blank prompt', { prompt: ' \n ' }, 'prompt'],
  ['a prompt over 2,000 characters', { prompt: 'x'.repeat(2001) }, 'prompt'],
  ['a prompt over 2,000 characters of astral plane', { prompt: '🎬'.repeat(2001) }, 'prompt'],
  ['an unknown camera command', { prompt: '[Pan up] a cat' }, 'prompt'],
  ['four commands in one bracket', { prompt: '[Pan left,Zoom in,Tilt up,Shake] a cat' }, 'prompt'],
  ['an unknown model', { prompt: 'p', model: 'MiniMax-Hailuo-2.3' }, 'model'],
  ['-Fast without a first frame', { prompt: 'p', model: 'minimax-video-2.3-Fast' }, 'first_frame_image'],
  [
    'a first frame that is a data URL',
    { prompt: 'p', first_frame_image: 'data:image/png;base64,AAAA' },
    'first_frame_image',
  ],
  ['a first frame that is not a string', { prompt: 'p', first_frame_image: 7 }, 'first_frame_image'],
  [
    'a first frame URL over 2,048 characters',
    { prompt: 'p', first_frame_image: `https://a.example.com/${'x'.repeat(2040)}` },
    'first_frame_image',
  ],
  ['a duration of 8', { prompt: 'p', duration: 8 }, 'duration'],
  ['a duration as a string', { prompt: 'p', duration: '6' }, 'duration'],
  ['10 s at 1080P', { prompt: 'p', duration: 10, resolution: '1080P' }, 'duration'],
  ['an unknown resolution', { prompt: 'p', resolution: '4K' }, 'resolution'],
  ['a prompt_optimizer that is not a boolean', { prompt: 'p', prompt_optimizer: 'yes' }, 'prompt_optimizer'],
])('refuses %s, naming the field', (_, body, field) => {
  const refusal = refusalOf(body);
  expect(refusal.field).toBe(field);
  expect(refusal.message.startsWith(`${field}: `)).toBe(true);
});

test.each([
  'http://169.254.169.254/latest/meta-data/',
  'https://127.0.0.1:8787/frame.png',
  'https://localhost./frame.png',
  'https://[::127.0.0.1]/frame.png',
  'https://[64:ff9b::a9fe:a9fe]/frame.png',
  'https://[2002:7f00:1::]/frame.png',
  'https://127.0.0.1.nip.io/frame.png',
  'http://2130706433/frame.png',
  'https://frames.internal/a.png',
  'https://user:pw@img.example.com/a.png',
])('a first frame at %s is refused: the host must be public', (url) => {
  const refusal = refusalOf({ prompt: 'p', model: 'minimax-video-2.3-Fast', first_frame_image: url });
  expect(refusal.field).toBe('first_frame_image');
  expect(refusal.message).toMatch(
    /^first_frame_image: must be a public http\(s\) URL of at most 2048 characters \(.+\)$/,
  );
});

test('a first frame on a public host, http or https, by name or address, is accepted as written', () => {
  for (const url of [
    'http://img.example.com/a.png',
    'https://93.184.216.34/a.png',
    'https://[2606:2800:220:1::]/a.png',
  ])
    expect(parseVideoRequest({ prompt: 'p', first_frame_image: url }).firstFrameImage).toBe(url);
});

test('checkVideoHosts refuses a first frame whose name resolves to a non-public address', async () => {
  const asked: string[] = [];
  const lookup: HostLookup = async (name) => {
    asked.push(name);
    if (name === 'rebind.example.com') return ['93.184.216.34', '169.254.169.254'];
    throw new Error(`getaddrinfo ENOTFOUND ${name}`);
  };
  const frame = (url: string) => parseVideoRequest({ prompt: 'p', first_frame_image: url });
  await expect(checkVideoHosts(frame('https://rebind.example.com/a.png'), { lookup })).rejects.toMatchObject({
    kind: 'invalid_request',
    details: { field: 'first_frame_image' },
    message:
      'first_frame_image: must be a public http(s) URL of at most 2048 characters ' +
      '(the host rebind.example.com resolves to 169.254.169.254, which is a cloud metadata address)',
  });
  await expect(checkVideoHosts(frame('https://nowhere.example.com/a.png'), { lookup })).resolves.toBeUndefined();
  await expect(checkVideoHosts(frame('https://93.184.216.34/a.png'), { lookup })).resolves.toBeUndefined();
  await expect(checkVideoHosts(parseVideoRequest({ prompt: 'p' }), { lookup })).resolves.toBeUndefined();
  expect(asked).toEqual(['rebind.example.com', 'nowhere.example.com']);
});

test('the 1080P refusal says where 10 s is offered', () => {
  expect(refusalOf({ prompt: 'p', duration: 10, resolution: '1080P' }).message).toBe(
    'duration: 10 s is not offered at 1080P, only at 720P, 768P',
  );
});

test('property: any JSON value is a request or a MediaError, never anything else', () => {
  const field = fc.constantFrom('prompt', 'model', 'duration', 'resolution', 'prompt_optimizer', 'first_frame_image');
  const likely = fc.oneof(
    fc.constantFrom(
      'minimax-video-2.3',
      'minimax-video-2.3-Fast',
      '720P',
      '1080P',
      6,
      10,
      true,
      'https://a.example.com/i.png',
    ),
    fc.string({ unit: fc.constantFrom('[', ']', ',', 'Pan left', 'Zoom', ' ', 'x', '🎬') }),
  );
  const body = fc.oneof(
    fc.jsonValue(),
    fc.dictionary(fc.oneof(field, fc.string()), fc.oneof(likely, fc.jsonValue())),
    fc.dictionary(field, likely),
  );
  fc.assert(
    fc.property(body, (value) => {
      try {
        parseVideoRequest(value);
      } catch (error) {
        if (!(error instanceof MediaError)) throw error;
      }
    }),
    { numRuns: 2000 },
  );
});
