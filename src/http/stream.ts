/**
 * Streamed answers (the CDR CSV, the subscriber-list array): the first chunk is produced before
 * the reply starts, so a query that fails on the first batch is an ordinary error answer, not a
 * 200 cut short after its header. The filters themselves are all read before (http/filters.ts).
 */
import { Readable } from 'node:stream';

/** A readable of `chunks`, once their first chunk is ready; throws what producing it threw. */
export async function startedStream(chunks: AsyncGenerator<string>): Promise<Readable> {
  const first = await chunks.next();
  async function* all(): AsyncGenerator<string> {
    if (first.done) return;
    yield first.value;
    yield* chunks;
  }
  return Readable.from(all());
}
