/** What a page hands every dialog it opens: whether it shows, and how it asks to close. */
export interface DialogProps {
  opened: boolean;
  onClose(): void;
}

/** A dialog that works in one project. */
export interface ProjectDialogProps extends DialogProps {
  project: string;
}
