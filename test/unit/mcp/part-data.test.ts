import { describe, expect, it } from 'vitest';
import type { ResultChecker } from '../../../src/batch/batch-types.js';
import { ExtractAnswer } from '../../../src/mcp/extract-answer.js';
import { partsDataOfOutcome } from '../../../src/mcp/part-data.js';
import { answered, joined, range, statement } from '../../helpers/part-statement.js';

describe('the data of a document in parts, as an agent gets it', () => {
  it('is the list of its parts, each with its source pages, result file, verdict and own data, in the extract answer', async () => {
    const { source, parts } = statement();
    const [first, second] = parts;
    const { line } = await joined(source, parts, [await answered(first!, 'complete'), await answered(second!, 'partial', [151])]);
    expect(line.data).toBeUndefined(); // the run reports the source without data: its data is its parts'

    const checker: ResultChecker = { check: (_type, data) => ({ schema: 'invoice.json', passed: (data as { pages: number }).pages > 1, problems: [] }) };
    const read = await partsDataOfOutcome(line, checker, 'invoice');
    expect(read).toEqual([
      {
        source_pages: range(1, 150),
        status: 'complete',
        result_file: first!.output,
        missing_pages: [],
        checks: expect.objectContaining({ passed: true }),
        data: { pages: 150 },
      },
      {
        source_pages: [151],
        status: 'partial',
        result_file: second!.output,
        missing_pages: [151],
        checks: expect.objectContaining({ passed: false }),
        data: { pages: 1 },
      },
    ]);

    const answer = new ExtractAnswer(undefined, '/out');
    answer.add(line, read);
    const [document] = (answer.finish({ credits: 151, requests: 2, interrupted: false }).structuredContent as { documents: Record<string, unknown>[] })
      .documents;
    expect(document).toMatchObject({ file: source.displayPath, in_parts: true, data: read });
    expect(document?.data_left_out).toBeUndefined();
  });
});
