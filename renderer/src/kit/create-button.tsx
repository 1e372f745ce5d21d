import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';

/** The button that opens a page's create dialog. */
export function CreateButton({ label, size, onClick }: { label: string; size?: 'xs'; onClick(): void }) {
  return (
    <Button size={size} leftSection={<IconPlus size={size ? 14 : 16} />} onClick={onClick}>
      {label}
    </Button>
  );
}
