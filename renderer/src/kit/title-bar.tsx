import { Group, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A page's (order 2) or a section's (order 3) heading with its actions at the right. */
export function TitleBar({
  title,
  order = 2,
  maw,
  id,
  children,
}: {
  title: ReactNode;
  order?: 2 | 3;
  maw?: number;
  id?: string;
  children?: ReactNode;
}) {
  return (
    <Group justify="space-between" maw={maw}>
      <Title order={order} size={order === 3 ? 'h4' : undefined} id={id}>
        {title}
      </Title>
      {children && (
        <Group gap="xs" wrap="nowrap">
          {children}
        </Group>
      )}
    </Group>
  );
}
