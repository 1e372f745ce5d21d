import { Text } from '@mantine/core';
import { IconHourglass } from '@tabler/icons-react';
import type { Box } from '../../../../shared/schemas/box';
import { Time } from '../../kit/time';
import { nextChangeWords } from './lifecycle-form';

/** The time left before the box's clocks change it: "Stops in 52 minutes if left idle". */
export function NextChange({ box }: { box: Pick<Box, 'next_change'> }) {
  const next = nextChangeWords(box);
  if (!next) return null;
  return (
    <Text size="sm" c="dimmed" aria-label="Next change">
      <IconHourglass size={14} style={{ verticalAlign: 'middle' }} aria-hidden /> {next.verb}{' '}
      <Time at={next.at} relative /> {next.why}
    </Text>
  );
}
