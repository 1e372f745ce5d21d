/** The fields of the box form that a problem's `errors[].path` can point at. */
export type FormField = 'name' | 'base' | 'fork' | 'cpus' | 'ram_mb' | 'environment' | 'tags' | 'mounts';

/** The form field a problem's `errors[].path` concerns (`body.config.cpus` → cpus). */
export function fieldOfPath(path: string): FormField | null {
  const p = path.replace(/^body\.?/, '');
  if (p === 'name' || p === 'base' || p === 'fork') return p;
  if (p.startsWith('config.cpus')) return 'cpus';
  if (p.startsWith('config.ram_mb')) return 'ram_mb';
  if (p.startsWith('environment')) return 'environment';
  if (p.startsWith('tags')) return 'tags';
  if (p.startsWith('data_mounts')) return 'mounts';
  return null;
}
