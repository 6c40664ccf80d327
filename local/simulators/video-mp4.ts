/**
 * The small real MP4 the MiniMax fake's file store serves: a minimal ISO-BMFF file (ISO/IEC
 * 14496-12), `ftyp` + `moov` (holding an `mvhd` with the clip's duration) + `mdat`, so a
 * client can check what it downloaded is a video container and not an error page.
 *
 * The harness writes answer bodies as UTF-8 text, which leaves bytes below 0x80 unchanged
 * and rewrites the others. Every field here is therefore chosen to stay 7-bit (a timescale of
 * 600, a text payload), and `minimalMp4` refuses to build anything else rather than serve a
 * corrupted file.
 */

export interface Mp4Clip {
  readonly durationSeconds: number;
  /** Written into the media data, so each file is distinguishable. */
  readonly label: string;
}

/** Ticks per second of the movie header: 600 stays 7-bit in every byte, 1000 would not. */
export const MP4_TIMESCALE = 600;

export function minimalMp4(clip: Mp4Clip): Buffer {
  const file = Buffer.concat([fileType(), movie(clip.durationSeconds), box('mdat', Buffer.from(clip.label, 'ascii'))]);
  if (file.some((byte) => byte > 0x7f)) throw new Error('minimalMp4: the file must stay 7-bit to survive the harness');
  return file;
}

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'ascii');
  return Buffer.concat([header, body]);
}

const uint32s = (...values: number[]): Buffer => {
  const bytes = Buffer.alloc(4 * values.length);
  values.forEach((value, i) => bytes.writeUInt32BE(value, 4 * i));
  return bytes;
};

/** `isom` major brand, minor version 512, compatible with isom, iso2 and mp41. */
const fileType = () => box('ftyp', Buffer.from('isom', 'ascii'), uint32s(0x200), Buffer.from('isomiso2mp41', 'ascii'));

/** A version-0 movie header: 100 bytes of payload, rate 1.0, volume 1.0, the identity matrix. */
function movieHeader(durationSeconds: number): Buffer {
  const identity = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000];
  return box(
    'mvhd',
    uint32s(0, 0, 0, MP4_TIMESCALE, Math.round(durationSeconds * MP4_TIMESCALE), 0x00010000),
    Buffer.from([0x01, 0x00, 0, 0]),
    uint32s(0, 0, ...identity, 0, 0, 0, 0, 0, 0, 1),
  );
}

const movie = (durationSeconds: number) => box('moov', movieHeader(durationSeconds));
