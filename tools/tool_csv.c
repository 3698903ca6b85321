/* tool_csv.c - CSV fields as RFC 4180 writes them, the one writer of every program's CSV. */
#include <string.h>

#include "tool.h"

void tool_csv_field(FILE *f, const char *text)
{
    if (strpbrk(text, ",\"\r\n"))
        tool_csv_quoted(f, text);
    else
        fputs(text, f);
}

void tool_csv_quoted(FILE *f, const char *text)
{
    fputc('"', f);
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
}
