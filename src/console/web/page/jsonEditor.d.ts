// The few parts of @json-editor/json-editor's API the playground uses (the package ships no types); see its
// README ("Initialize", "Get/Set Value", "Validate", "Listen for Changes").
declare module '@json-editor/json-editor' {
  export interface JSONEditorValidationError {
    path: string;
    property: string;
    message: string;
  }

  export class JSONEditor {
    constructor(element: HTMLElement, options: Record<string, unknown>);
    getValue(): unknown;
    setValue(value: unknown): void;
    validate(): JSONEditorValidationError[];
    on(event: 'change' | 'ready', callback: () => void): void;
    destroy(): void;
  }
}
