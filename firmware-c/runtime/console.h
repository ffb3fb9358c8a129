/* Console on the picotpu MMIO device: byte output, byte input, a small
 * printf. No heap, no FILE: everything goes straight to the TX register.
 * Names follow <stdio.h> so code reads as usual; do not also include it. */
#ifndef PICOTPU_CONSOLE_H
#define PICOTPU_CONSOLE_H

#include <stdarg.h>
#include <stddef.h>

#define EOF (-1)

int putchar(int c);
/* Writes s and a newline, as the standard puts does. */
int puts(const char *s);
/* Next input byte (0..255), or EOF once the host's input is used up. */
int getchar(void);

/* Conversions: %d %i %u %x %X %s %c %p %%, with the l (32-bit) and ll
 * (64-bit) modifiers, a field width, '0' padding and '-' left alignment. */
int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

#endif
