/* libical as a reader that writes back: its own whole-file parser reads the file and its own
 * printer writes the tree (icalcomponent_as_ical_string_r), X-LIC-ERRORs stripped, as an
 * application built on libical (Evolution, KOrganizer's older KCal) saves what it read.
 * What taskcal's `diff` then finds between the two is what libical keeps (Scripts/keeps.py).
 *
 * usage: libical_roundtrip FILE.ics > OUT.ics
 */
#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: libical_roundtrip FILE.ics\n"); return 2; }
    icalerror_set_errors_are_fatal(0);
    FILE *file = fopen(argv[1], "rb");
    if (!file) { fprintf(stderr, "cannot read %s\n", argv[1]); return 2; }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    if (fread(text, 1, (size_t)size, file) != (size_t)size) { fclose(file); return 2; }
    text[size] = 0;
    fclose(file);
    icalcomponent *root = icalparser_parse_string(text);
    if (!root) { fprintf(stderr, "unparsable\n"); return 1; }
    icalcomponent_strip_errors(root);
    char *out = icalcomponent_as_ical_string_r(root);
    fputs(out, stdout);
    icalmemory_free_buffer(out);
    icalcomponent_free(root);
    free(text);
    return 0;
}
