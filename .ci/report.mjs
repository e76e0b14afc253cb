// CI's closing report over its steps and the lanes' vitest JSON reports: what failed (a step, or a file, test and the
// first line of its error; the runs' own output scrolls far above), the 15 slowest files with their times, each
// step's and each lane's wall time, then one closing line for all the lanes, `tests: N passed, N failed`. Exits 1 when
// a step failed, a test failed, a file failed without a failed test (a hook), a lane wrote no report or ran no test.
// `node .ci/report.mjs DIR LANE…`: DIR holds LANE.json (vitest --reporter=json) and LANE.seconds (its wall time), and
// steps.tsv, a line per step other than the lanes: its name, wall time in seconds, exit code and what its failure means.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const [dir, ...lanes] = process.argv.slice(2);
const firstLine = (text) => String(text ?? '').trim().split('\n')[0].slice(0, 300);
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

let failed = false;
const steps = [];
const stepsFile = join(dir, 'steps.tsv');
for (const line of existsSync(stepsFile) ? readFileSync(stepsFile, 'utf8').split('\n').filter(Boolean) : []) {
  const [name, wall, code, failure] = line.split('\t');
  steps.push(`${name} ${wall} s${code === '0' ? '' : ' (failed)'}`);
  if (code !== '0') {
    console.log(`failed: step ${name}: ${failure} (exit ${code}; its output is above)`);
    failed = true;
  }
}
const files = [];
const totals = [];
const sum = { passed: 0, failed: 0, skipped: 0 };
for (const lane of lanes) {
  const reportFile = join(dir, `${lane}.json`);
  const wall = existsSync(join(dir, `${lane}.seconds`)) ? readFileSync(join(dir, `${lane}.seconds`), 'utf8').trim() : '?';
  if (!existsSync(reportFile)) {
    console.log(`failed: lane ${lane} wrote no report (vitest did not finish: its error is in the output above)`);
    failed = true;
    totals.push(`${lane} ${wall} s (no report)`);
    continue;
  }
  const run = JSON.parse(readFileSync(reportFile, 'utf8'));
  let busy = 0;
  for (const file of run.testResults) {
    const where = `${lane}: ${relative(process.cwd(), file.name)}`;
    const failedTests = file.assertionResults.filter((test) => test.status === 'failed');
    for (const test of failedTests) console.log(`failed: ${where} > ${test.fullName}: ${firstLine(test.failureMessages[0])}`);
    // A hook that failed (beforeAll) leaves its tests skipped and no message here: the error is in the output above.
    const message = firstLine(file.message) || 'a hook failed and its tests were skipped (the error is in the output above)';
    if (file.status === 'failed' && failedTests.length === 0) console.log(`failed: ${where}: ${message}`);
    const ms = (file.endTime ?? file.startTime) - file.startTime;
    busy += ms;
    files.push({ lane, name: relative(process.cwd(), file.name), ms });
  }
  if (run.numTotalTests === 0) {
    console.log(`failed: lane ${lane} ran no test`);
    failed = true;
  }
  if (run.numFailedTests > 0 || !run.success) failed = true;
  sum.passed += run.numPassedTests;
  sum.failed += run.numFailedTests;
  sum.skipped += run.numPendingTests + run.numTodoTests;
  totals.push(`${lane} ${wall} s (${run.testResults.length} files, ${run.numTotalTests} tests, ${seconds(busy)} in files)`);
}

console.log('CI: the 15 slowest test files:');
for (const file of files.sort((a, b) => b.ms - a.ms).slice(0, 15)) {
  console.log(`  ${seconds(file.ms).padStart(9)}  ${file.lane.padEnd(9)} ${file.name}`);
}
console.log(`CI: steps (wall time; those after npm ci ran beside the lanes): ${steps.join('; ')}`);
console.log(`CI: lanes (wall time): ${totals.join('; ')}`);
console.log(`tests: ${sum.passed} passed, ${sum.failed} failed${sum.skipped ? `, ${sum.skipped} skipped` : ''}`);
process.exit(failed ? 1 : 0);
