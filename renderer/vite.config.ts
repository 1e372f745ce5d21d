import react from '@vitejs/plugin-react';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  // Relative asset URLs: the same build is served by the core at `/` and by Electron at app://boxdesk/.
  base: './',
  plugins: [react()],
  build: {
    outDir: path.resolve(here, '../dist/renderer'),
    emptyOutDir: true,
    sourcemap: true,
  },
});
