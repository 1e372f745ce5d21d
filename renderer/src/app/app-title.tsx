import { Title, type TitleProps } from '@mantine/core';

/** The app's name: the page's one h1, in the header or on the sign-in card. */
export function AppTitle({ size }: { size: TitleProps['size'] }) {
  return (
    <Title order={1} size={size}>
      Boxdesk
    </Title>
  );
}
