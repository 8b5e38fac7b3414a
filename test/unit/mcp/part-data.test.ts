import { describe, expect, it } from 'vitest';
import { ExtractAnswer } from '../../../src/mcp/extract-answer.js';
import { DocExtract } from '../../../src/index.js';
import { partsOf, resultOfOutcome } from '../../../src/mcp/part-data.js';
import { answered, joined, range, statement } from '../../helpers/part-statement.js';

describe('the data of a document in parts, as an agent gets it', () => {
  it('is the list of its parts, each with its source pages, result file and own data, in the extract answer', async () => {
    const { source, parts } = statement();
    const [first, second] = parts;
    const { line } = await joined(source, parts, [await answered(first!, 'complete'), await answered(second!, 'partial', [151])]);
    expect(line.data).toBeUndefined(); // the run reports the source without data: its data is its parts'

    // Each part's verdict is the one the run wrote with it (none here): the answer checks nothing again.
    const read = partsOf(await resultOfOutcome(new DocExtract({ stateDir: '/nonexistent-state' }), line));
    expect(read).toEqual([
      {
        source_pages: range(1, 150),
        status: 'complete',
        result_file: first!.output,
        missing_pages: [],
        data: { pages: 150 },
      },
      {
        source_pages: [151],
        status: 'partial',
        result_file: second!.output,
        missing_pages: [151],
        data: { pages: 1 },
      },
    ]);

    const answer = new ExtractAnswer(false, '/out');
    answer.add(line, read);
    const [document] = (answer.finish({ credits: 151, requests: 2, interrupted: false }).structuredContent as { documents: Record<string, unknown>[] })
      .documents;
    expect(document).toMatchObject({ file: source.displayPath, in_parts: true, data: read });
    expect(document?.data_left_out).toBeUndefined();
  });
});
