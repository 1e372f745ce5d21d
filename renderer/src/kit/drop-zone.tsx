import { Paper } from '@mantine/core';
import { useState, type ReactNode } from 'react';

/** A region files can be dropped on (named for screen readers and tests), outlined while something is dragged over it. */
export function DropZone({
  label,
  onFiles,
  p,
  dashed = false,
  children,
}: {
  label: string;
  onFiles(files: File[]): void;
  p?: string;
  /** A dashed border: the region is only a place to drop (not a list that also takes drops). */
  dashed?: boolean;
  children: ReactNode;
}) {
  const [dragging, setDragging] = useState(false);
  return (
    <Paper
      withBorder
      role="region"
      aria-label={label}
      p={p}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        e.preventDefault();
        setDragging(false);
        const files = [...e.dataTransfer.files];
        if (files.length) onFiles(files);
      }}
      style={{
        borderStyle: dashed ? 'dashed' : undefined,
        ...(dragging ? { outline: '2px dashed var(--mantine-primary-color-filled)', outlineOffset: -2 } : {}),
      }}
    >
      {children}
    </Paper>
  );
}
