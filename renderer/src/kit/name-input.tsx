import { TextInput, type TextInputProps } from '@mantine/core';

/** The name of a new thing, which the API checks with the DNS-label rule; focused when its dialog opens. */
export function NameInput({ label = 'Name', ...props }: TextInputProps) {
  return (
    <TextInput
      label={label}
      description="lower-case letters, digits and hyphens"
      required
      data-autofocus
      autoComplete="off"
      errorProps={{ role: 'alert' }}
      {...props}
    />
  );
}
