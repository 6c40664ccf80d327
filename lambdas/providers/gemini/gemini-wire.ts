/**
 * The Gemini native wire shapes the adapter writes and reads (docs/upstreams.md §3), camelCase as on
 * the wire. Response fields are optional and loosely typed: the adapter checks what it reads
 * and ignores everything else.
 */

export interface GeminiPart {
  text?: string;
  /** A thought summary, not answer text. */
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType: string; fileUri: string };
  functionCall?: { name: string; args?: Record<string, unknown>; id?: string };
  functionResponse?: { name: string; response: Record<string, unknown>; id?: string };
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface FunctionDeclaration {
  name: string;
  description?: string;
  /** The OpenAPI-subset `Schema`. */
  parameters?: Record<string, unknown>;
  /** Standard JSON Schema, for schemas the subset cannot express. */
  parametersJsonSchema?: Record<string, unknown>;
}

export type FunctionCallingMode = 'AUTO' | 'ANY' | 'NONE';

export interface GenerationConfig {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  responseMimeType?: string;
  responseSchema?: Record<string, unknown>;
  responseJsonSchema?: Record<string, unknown>;
}

export interface GenerateContentRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
  tools?: { functionDeclarations: FunctionDeclaration[] }[];
  toolConfig?: { functionCallingConfig: { mode: FunctionCallingMode; allowedFunctionNames?: string[] } };
  generationConfig?: GenerationConfig;
}

export interface UsageMetadata {
  promptTokenCount?: unknown;
  candidatesTokenCount?: unknown;
  totalTokenCount?: unknown;
  cachedContentTokenCount?: unknown;
  thoughtsTokenCount?: unknown;
}

export interface WirePart {
  text?: unknown;
  thought?: unknown;
  functionCall?: { name?: unknown; args?: unknown; id?: unknown } | null;
}

export interface Candidate {
  content?: { role?: unknown; parts?: unknown } | null;
  finishReason?: unknown;
  index?: unknown;
}

export interface GenerateContentResponse {
  candidates?: unknown;
  promptFeedback?: { blockReason?: unknown } | null;
  usageMetadata?: UsageMetadata | null;
  modelVersion?: unknown;
  responseId?: unknown;
}
