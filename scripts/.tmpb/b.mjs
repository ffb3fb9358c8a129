import { build } from 'esbuild';
await build({ entryPoints: [process.argv[2]], bundle: true, format: 'esm', platform: 'node', outfile: process.argv[3], logLevel: 'error', banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" } });
