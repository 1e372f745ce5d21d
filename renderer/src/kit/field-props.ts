/** What a field's error carries: role alert, so a screen reader says it at once (and tests find it by role). */
const announced = { errorProps: { role: 'alert' } } as const;

/** A form field's props (value, onChange, error…) from its form, its error announced. */
export function fieldProps<P, O, R extends object>(
  form: { getInputProps(path: P, options?: O): R },
  path: P,
  options?: O,
): R & typeof announced {
  return { ...form.getInputProps(path, options), ...announced };
}
