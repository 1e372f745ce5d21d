/** The choices of a SegmentedControl or Select from `{value: label}`, in the record's order. */
export function options<V extends string>(labels: Record<V, string>): { value: V; label: string }[] {
  return (Object.entries(labels) as [V, string][]).map(([value, label]) => ({ value, label }));
}
