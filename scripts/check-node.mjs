// Stops `npm test` and `npm start` on a Node.js older than the one the dependencies need, saying what to do.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `boxdesk: Node.js ${process.version} is too old: Boxdesk needs 22.12 or newer (Node 20 ended in April 2026).\n` +
      '  Install Node 24 LTS, or run `. scripts/use-node.sh` in this shell (it fetches Node 24 from the npm registry),\n' +
      '  then `npm ci` again so native modules are built for it.',
  );
  process.exit(1);
}
