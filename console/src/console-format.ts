/** How the console writes numbers, money and times: one place, so every page agrees. */

export const formatUsd = (value: number): string =>
  value < 0.01 && value > 0
    ? `$${value.toFixed(6)}`
    : new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(value);

export const formatCount = (value: number): string => new Intl.NumberFormat('en-US').format(value);

export const formatDate = (iso: string): string =>
  new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC';

/** A UTC calendar day as `YYYY-MM-DD`, the form the usage and request routes take. */
export const isoDay = (date: Date): string => date.toISOString().slice(0, 10);

export const daysBefore = (days: number, from = new Date()): string =>
  isoDay(new Date(from.getTime() - days * 86_400_000));
