// Preloaded with --require by test/cli/output-stream.test.ts: at exit, writes
// every module Node loaded, its own included ("NativeModule net"), to the file
// in EDGESYNC_TEST_BUILTINS_FILE. Loader hooks do not see Node's internal requires.
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  writeFileSync(process.env.EDGESYNC_TEST_BUILTINS_FILE, `${process.moduleLoadList.join('\n')}\n`);
});
