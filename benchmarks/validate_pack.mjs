#!/usr/bin/env node
// Khronos glTF-Validator over a pack in one node process: validateBytes on each file,
// one after another, as a pack check would run it. Prints one JSON line with the wall
// time of the loop (process start and module load excluded) and the issue counts.
//
// Usage: node validate_pack.mjs MODULES_DIR FILE.glb...
// MODULES_DIR is a folder whose node_modules holds `gltf-validator` (a copy of the
// oracles folder after `npm ci`).

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';

const [ modules, ...files ] = process.argv.slice( 2 );
const require = createRequire( path.join( path.resolve( modules ), 'package.json' ) );
const validator = require( 'gltf-validator' );

const t0 = process.hrtime.bigint();
let errors = 0, warnings = 0, animations = 0;
for ( const file of files ) {

	const bytes = new Uint8Array( await readFile( file ) );
	const result = await validator.validateBytes( bytes, { uri: path.basename( file ), maxIssues: 0, writeTimestamp: false } );
	errors += result.issues.numErrors;
	warnings += result.issues.numWarnings;
	animations += ( result.info && result.info.animationCount ) || 0;

}

const seconds = Number( process.hrtime.bigint() - t0 ) / 1e9;
process.stdout.write( JSON.stringify( { files: files.length, seconds, errors, warnings, animations, validator: validator.version() } ) + '\n' );
