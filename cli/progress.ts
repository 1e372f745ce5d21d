/** A spinner on stderr while a slow request runs; silent when stderr is not a terminal. */
export async function withProgress<T>(label: string, work: () => Promise<T>, stream: NodeJS.WriteStream = process.stderr): Promise<T> {
  if (!stream.isTTY) return work();
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let i = 0;
  const started = Date.now();
  const draw = () => stream.write(`\r${frames[i++ % frames.length]} ${label}… ${Math.floor((Date.now() - started) / 1000)}s`);
  draw();
  const timer = setInterval(draw, 100);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    stream.write('\r\x1b[K');
  }
}
