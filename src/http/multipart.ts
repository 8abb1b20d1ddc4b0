/**
 * Multipart uploads (audio upload, bulk import): one reader of their parts, and what a malformed
 * upload answers. Every refusal here is the client's mistake, so a 400 that says what was wrong
 * ("Multipart form parse error - …", DRF's words), never a 413 that blames the size, nor a 500.
 *
 * The reader holds the form to its limits itself, part by part. Busboy's own `files`/`fields`
 * limits cut the request off (unpipe, destroy the current file) the moment they trip, which can
 * be while the previous file is still being read: that reader then waited forever. Busboy keeps
 * only its `parts` limit, as a backstop this reader never reaches.
 */
import type { Multipart, MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { AppError } from './errors.ts';
import { nulError } from './null-characters.ts';

/** One file per upload (the audio, or the CSV), and a few text fields beside it. */
export const MULTIPART_LIMITS = { files: 1, fields: 20 } as const;

const parseError = (why: string) => new AppError(400, { detail: `Multipart form parse error - ${why}` });
const tooManyFiles = () => parseError('only one file may be sent in an upload.');
const tooManyFields = () => parseError(`too many parts: an upload holds one file and at most ${MULTIPART_LIMITS.fields} fields.`);

/** The 400 of a multipart Content-Type without its boundary (busboy cannot start: a 500 before). */
export function boundaryError(request: FastifyRequest): AppError | undefined {
  const type = request.headers['content-type'] ?? '';
  return /;\s*boundary=("[^"]+"|[^\s;]+)/i.test(type) ? undefined : parseError('Invalid boundary in multipart: None');
}

/** @fastify/multipart's limit errors (its backstop), as the 400 they are. */
export function fromMultipartLimit(code: string | undefined): AppError | undefined {
  switch (code) {
    case 'FST_FILES_LIMIT':
      return tooManyFiles();
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return tooManyFields();
    case 'FST_PROTO_VIOLATION':
      return parseError('a field name is not allowed.');
    default:
      return undefined;
  }
}

/**
 * The parts of the request's form in order, held to MULTIPART_LIMITS: a second file or a 21st
 * field is a 400, and so is a field holding a NUL (named, as in a JSON body).
 */
export async function* formParts(request: FastifyRequest, limits: { fileSize?: number } = {}): AsyncGenerator<Multipart> {
  let files = 0;
  let fields = 0;
  for await (const part of request.parts({ limits })) {
    if (part.type === 'file') {
      if (++files > MULTIPART_LIMITS.files) {
        part.file.resume();
        throw tooManyFiles();
      }
      // A body that ends inside this file (no closing boundary) leaves its stream destroyed before
      // it is read; piping it then waited forever.
      if (part.file.destroyed) throw parseError('the body ends inside a file part.');
    } else {
      if (++fields > MULTIPART_LIMITS.fields) throw tooManyFields();
      const refused = nulError({ [part.fieldname]: part.value });
      if (refused) throw refused;
    }
    yield part;
  }
}

export interface FileForm {
  /** The text fields sent before the file (a repeated name: its last value). */
  fields: Record<string, string>;
  /** The file part, its stream not yet read; undefined when the form holds none. */
  upload?: MultipartFile;
  /** Reads the rest of the form once the file is read: throws when it breaks the limits. */
  rest(): Promise<void>;
}

/** Reads a form up to its file (the bulk import streams that file before the form's end). */
export async function readFileForm(request: FastifyRequest, limits: { fileSize?: number } = {}): Promise<FileForm> {
  const parts = formParts(request, limits);
  const fields: Record<string, string> = {};
  const rest = async () => {
    for await (const part of parts) if (part.type === 'file') part.file.resume(); // reached only within the limits
  };
  for (;;) {
    const next = await parts.next();
    if (next.done) return { fields, rest };
    if (next.value.type === 'file') return { fields, upload: next.value, rest };
    fields[next.value.fieldname] = String(next.value.value);
  }
}
