import {
  createTheme,
  defaultVariantColorsResolver,
  parseThemeColor,
  type CSSVariablesResolver,
  type VariantColorsResolver,
} from '@mantine/core';

/**
 * Subtle buttons and action icons (the rows' console, stop, resume and delete, toolbars) keep their
 * colour in both schemes. Mantine 9 draws them in `--mantine-color-{c}-light-color`, which in dark
 * is shade 0, near white: every icon looked the same. Ours is `--mantine-color-{c}-subtle-color`
 * (resolver below): Mantine's own shade in light, shade 4 in dark, as Mantine's `{c}-text` is.
 */
const variantColorResolver: VariantColorsResolver = (input) => {
  const colors = defaultVariantColorsResolver(input);
  if (input.variant !== 'subtle') return colors;
  const parsed = parseThemeColor({ color: input.color ?? input.theme.primaryColor, theme: input.theme });
  if (!parsed.isThemeColor || parsed.shade !== undefined) return colors;
  return { ...colors, color: `var(--mantine-color-${parsed.color}-subtle-color)` };
};

export const theme = createTheme({
  primaryColor: 'indigo',
  defaultRadius: 'md',
  fontFamilyMonospace: "ui-monospace, 'SF Mono', Menlo, Consolas, 'DejaVu Sans Mono', monospace",
  cursorType: 'pointer',
  // A user whose system asks for less motion gets dialogs and menus without their transitions.
  respectReducedMotion: true,
  variantColorResolver,
});

/** `--mantine-color-{c}-subtle-color` for every colour of the theme, per scheme. */
export const cssVariablesResolver: CSSVariablesResolver = (t) => {
  const names = Object.keys(t.colors);
  const each = (value: (c: string) => string) =>
    Object.fromEntries(names.map((c) => [`--mantine-color-${c}-subtle-color`, value(c)]));
  return {
    variables: {},
    light: each((c) => `var(--mantine-color-${c}-light-color)`),
    dark: each((c) => `var(--mantine-color-${c}-4)`),
  };
};
