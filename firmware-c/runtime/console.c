/* Console I/O and a heap-free printf for picotpu firmware. */
#include "console.h"

#include <stdint.h>
#include <string.h>

#include "platform.h"

int putchar(int c)
{
	MMIO32(CONSOLE_TX_ADDR) = (uint8_t)c;
	return (uint8_t)c;
}

int puts(const char *s)
{
	while (*s)
		putchar(*s++);
	putchar('\n');
	return 0;
}

int getchar(void)
{
	uint32_t v = MMIO32(CONSOLE_RX_ADDR);
	return v == 0xFFFFFFFFu ? EOF : (int)(v & 0xFF);
}

/* Where formatted output goes: straight to TX (printf, so it needs no
 * buffer) or into buf (snprintf). len counts every character produced,
 * stored or not, as snprintf must return it. */
struct out {
	int console;
	char *buf;
	size_t size;
	size_t len;
};

static void emit(struct out *o, char c)
{
	if (o->console)
		MMIO32(CONSOLE_TX_ADDR) = (uint8_t)c;
	else if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void emit_n(struct out *o, char c, size_t n)
{
	while (n--)
		emit(o, c);
}

/* Divides *v by 10 and returns the remainder, in 16-bit steps so that only
 * 32-bit division is needed: libgcc's 64-bit __udivdi3/__umoddi3 would add
 * almost 3 KiB to every program that prints. */
static uint32_t div10_u64(unsigned long long *v)
{
	unsigned long long q = 0;
	uint32_t r = 0;
	for (int shift = 48; shift >= 0; shift -= 16) {
		uint32_t cur = r << 16 | ((uint32_t)(*v >> shift) & 0xFFFF);  /* < 10 * 2^16 */
		q = q << 16 | cur / 10;
		r = cur % 10;
	}
	*v = q;
	return r;
}

/* Digits of v, written backwards ending at end; returns the first one.
 * Values that fit 32 bits take the cheaper 32-bit path. */
static char *utoa_rev(char *end, unsigned long long v, unsigned base, int upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = end;

	if (base == 16) {
		do {
			*--p = digits[v & 15];
			v >>= 4;
		} while (v);
		return p;
	}
	while (v > 0xFFFFFFFFu)
		*--p = digits[div10_u64(&v)];
	uint32_t w = (uint32_t)v;
	do {
		*--p = digits[w % 10];
		w /= 10;
	} while (w);
	return p;
}

static void format(struct out *o, const char *fmt, va_list ap)
{
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			emit(o, *fmt);
			continue;
		}
		fmt++;

		int left = 0, zero = 0;
		for (;; fmt++) {
			if (*fmt == '-')
				left = 1;
			else if (*fmt == '0')
				zero = 1;
			else
				break;
		}
		size_t width = 0;
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (size_t)(*fmt++ - '0');
		int lng = 0;
		while (*fmt == 'l') {
			lng++;
			fmt++;
		}

		char tmp[24];                 /* 2^64 has 20 decimal digits */
		const char *s, *end;
		const char *prefix = "";
		size_t min_digits = 1;
		unsigned long long v;
		unsigned base = 10;
		int upper = 0;

		switch (*fmt) {
		case 'c':
			tmp[0] = (char)va_arg(ap, int);
			s = tmp;
			end = s + 1;
			zero = 0;
			goto pad;
		case 's':
			s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			end = s + strlen(s);
			zero = 0;
			goto pad;
		case 'd':
		case 'i': {
			long long x = lng >= 2 ? va_arg(ap, long long)
				    : lng == 1 ? va_arg(ap, long)
				    : va_arg(ap, int);
			/* Negate as unsigned so that the minimum value works too. */
			v = x < 0 ? -(unsigned long long)x : (unsigned long long)x;
			if (x < 0)
				prefix = "-";
			break;
		}
		case 'X':
			upper = 1;
			/* fall through */
		case 'x':
			base = 16;
			/* fall through */
		case 'u':
			v = lng >= 2 ? va_arg(ap, unsigned long long)
			  : lng == 1 ? va_arg(ap, unsigned long)
			  : va_arg(ap, unsigned);
			break;
		case 'p':
			v = (uintptr_t)va_arg(ap, void *);
			base = 16;
			prefix = "0x";
			min_digits = 2 * sizeof(void *);
			break;
		case '%':
			emit(o, '%');
			continue;
		default:
			/* Unknown conversion: show it as written. A lone '%' at the
			 * end must not step past the terminator. */
			emit(o, '%');
			if (!*fmt)
				return;
			emit(o, *fmt);
			continue;
		}

		{
			char *p = utoa_rev(tmp + sizeof tmp, v, base, upper);
			while ((size_t)(tmp + sizeof tmp - p) < min_digits)
				*--p = '0';
			s = p;
			end = tmp + sizeof tmp;
		}
	pad:;
		size_t plen = strlen(prefix);
		size_t n = (size_t)(end - s) + plen;
		size_t fill = width > n ? width - n : 0;

		if (!left && !zero)
			emit_n(o, ' ', fill);
		while (*prefix)
			emit(o, *prefix++);
		if (!left && zero)
			emit_n(o, '0', fill);   /* zeros go after the sign: -0042 */
		while (s < end)
			emit(o, *s++);
		if (left)
			emit_n(o, ' ', fill);
	}
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { 0, buf, size, 0 };
	format(&o, fmt, ap);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int vprintf(const char *fmt, va_list ap)
{
	struct out o = { 1, NULL, 0, 0 };
	format(&o, fmt, ap);
	return (int)o.len;
}

int printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}
