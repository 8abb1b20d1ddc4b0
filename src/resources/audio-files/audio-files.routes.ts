/** /rest-api/audio-files/ — recorded messages played by survey sections and voicemail. */
import fs from 'node:fs';
import path from 'node:path';
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentAudioFile, presentUpload } from './audio-files.present.ts';
import {
  countAudioFiles,
  findAudioFile,
  listAudioFiles,
  updateAudioFile,
  visibleAudioFiles,
} from './audio-files.repository.ts';
import { AudioFileRecord, AudioUploadForm, AudioUploadRecord, audioFileUpdateFields } from './audio-files.schema.ts';
import { removeAudioFile, uploadAudioFile } from './audio-files.service.ts';
import { removeQuietly, storedPath } from './audio-files.storage.ts';
import { readUploadForm } from './audio-files.upload.ts';

const tags = ['audio-files'];

function routes(api: Api, { database, config }: AppDeps) {
  const { db } = database;

  api.get('/audio-files/', { schema: { tags, response: { 200: envelopeOf(AudioFileRecord) } } }, async (request) => {
    const where = visibleAudioFiles(request.user);
    return paginate(
      request,
      () => countAudioFiles(db, where),
      (limit, offset) => listAudioFiles(db, where, limit, offset),
      (row) => presentAudioFile(request, row),
    );
  });

  api.get('/audio-files/:id/', { schema: { tags, response: { 200: AudioFileRecord } } }, async (request) => {
    const row = await findAudioFile(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentAudioFile(request, row);
  });

  api.get('/audio-files/:id/download/', { schema: { tags } }, async (request, reply) => {
    const row = await findAudioFile(db, request.user, recordId(request));
    if (!row) throw notFound();
    const file = storedPath(config.dataDir, row.audio_file);
    const stat = await fs.promises.stat(file).catch(() => undefined);
    if (!stat?.isFile()) throw notFound();
    return reply
      .type(row.content_type)
      .header('content-length', stat.size)
      .header('content-disposition', `attachment; filename="${path.basename(file)}"`)
      .send(fs.createReadStream(file));
  });

  // contract §1, §8: the upload is multipart only; a JSON body is a 415.
  api.post(
    '/audio-files/',
    {
      config: { multipart: true },
      schema: { tags, consumes: ['multipart/form-data'], body: AudioUploadForm, response: { 201: AudioUploadRecord } },
    },
    async (request, reply) => {
      if (!request.isMultipart()) {
        throw new AppError(415, { detail: `Unsupported media type "${request.headers['content-type']}" in request.` });
      }
      const form = await readUploadForm(request, config.dataDir);
      try {
        const row = await uploadAudioFile(fieldContext(db, request), config.dataDir, form);
        return reply.code(201).header('location', recordUrl(request, 'audio-files', row.id)).send(presentUpload(row));
      } finally {
        if (form.temp) await removeQuietly(form.temp);
      }
    },
  );

  api.route({
    method: ['PATCH', 'PUT'],
    url: '/audio-files/:id/',
    schema: { tags, body: bodySchema(audioFileUpdateFields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      if (!(await findAudioFile(db, request.user, id))) throw notFound();
      const values = await parseBody(audioFileUpdateFields, request.body, fieldContext(db, request), { partial: true });
      if (values.name) await updateAudioFile(db, id, { name: values.name });
      return reply.code(202).send();
    },
  });

  api.delete('/audio-files/:id/', { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findAudioFile(db, request.user, id))) throw notFound();
    await removeAudioFile(db, config.dataDir, id);
    return reply.code(204).send();
  });
}

export const audioFilesResource: Resource = { name: 'audio-files', routes };
