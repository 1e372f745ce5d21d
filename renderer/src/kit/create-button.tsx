import { Button } from '@mantine/core';
import { IconPlus, type Icon } from '@tabler/icons-react';

/**
 * The button that opens a page's create dialog; with `icon`, another way to make one (from a Dockerfile,
 * from a folder), drawn quieter beside it.
 */
export function CreateButton({
  label,
  size,
  icon: Glyph = IconPlus,
  onClick,
}: {
  label: string;
  size?: 'xs';
  icon?: Icon;
  onClick(): void;
}) {
  return (
    <Button
      size={size}
      variant={Glyph === IconPlus ? 'filled' : 'default'}
      leftSection={<Glyph size={size ? 14 : 16} />}
      onClick={onClick}
    >
      {label}
    </Button>
  );
}
