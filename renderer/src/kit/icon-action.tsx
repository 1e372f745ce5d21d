import { ActionIcon, Tooltip } from '@mantine/core';
import { IconTrash, type Icon } from '@tabler/icons-react';
import { Link } from 'react-router';

interface Props {
  /** The accessible name, which names the target: "Delete volume data". */
  label: string;
  /** The tooltip; the label when not given. */
  tip?: string;
  icon: Icon;
  color?: string;
  disabled?: boolean;
  loading?: boolean;
  /** A link inside the window instead of a button. */
  to?: string;
  onClick?(): void;
}

/** A row's icon button with its tooltip. */
export function IconAction({ label, tip, icon: Glyph, color, disabled, loading, to, onClick }: Props) {
  const glyph = <Glyph size={16} />;
  return (
    <Tooltip label={tip ?? label}>
      {to ? (
        <ActionIcon variant="subtle" component={Link} to={to} aria-label={label} color={color} disabled={disabled}>
          {glyph}
        </ActionIcon>
      ) : (
        <ActionIcon
          variant="subtle"
          aria-label={label}
          color={color}
          disabled={disabled}
          loading={loading}
          onClick={onClick}
        >
          {glyph}
        </ActionIcon>
      )}
    </Tooltip>
  );
}

/** A row's delete button (red, a bin): `label` names what goes. */
export function DeleteAction({ label, tip = 'Delete', ...rest }: Omit<Props, 'icon' | 'color' | 'to'>) {
  return <IconAction label={label} tip={tip} icon={IconTrash} color="red" {...rest} />;
}
