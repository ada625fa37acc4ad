#ifndef CLIBICALLOOKUPS_H
#define CLIBICALLOOKUPS_H

#include <libical/ical.h>

/*
 * Table-driven versions of libical's kind look-ups and its date-time reader, and a one-pass
 * writer of its commonest values, for an executable that links this target.
 *
 * libical 3.0 finds a property's kind by comparing its name with strcasecmp against each
 * entry of a table of 120, in order, and maps a kind to its name, value type and validity by
 * walking the same table. Its parser calls these once or more for every content line, through
 * its procedure linkage table; and it reads every DATE-TIME with sscanf. Reading a calendar,
 * that was a fifth of all the work (issue 13).
 *
 * An executable that links this target defines the functions below under libical's own names,
 * so the dynamic linker resolves libical's calls to them. Each answers from tables made once,
 * at first use, from the answers of libical's own functions (found with dlsym(RTLD_NEXT)),
 * and hands anything it has no entry for to libical's function: a name not in the table (an
 * X- name, an unknown one) or a kind out of range. The date-time reader takes only the
 * canonical forms (20260921, 20260921T154107, 20260921T154107Z, ASCII digits) and checks at
 * first use that it gives what libical gives for them; every other string, and every string
 * if the check fails, goes to libical's reader. Answers are libical's own, faster.
 *
 * Writing, libical's serializer asks icalvalue_as_ical_string_r for each property's value, also
 * through its PLT. libical 3.0 escapes a TEXT value with a function call for each byte and
 * prints a DATE-TIME with two snprintf calls: a fifth of all the instructions of writing an
 * event (issue 59). The version here writes TEXT (for every property but CATEGORIES, RESOURCES,
 * POLL-PROPERTIES and X- ones, where libical leaves , and ; unescaped), DATE and DATE-TIME
 * values (years 0 to 9999, fields of two digits) in one pass, to the same bytes: \n for a line
 * break, a backslash before ; , and \, CR, BS and FF dropped, a tab kept. Every other value,
 * and every value if its check at first use finds a probe written otherwise, goes to libical.
 * Reading, its parser makes each value with icalvalue_new_from_string, through its PLT too, and
 * unescapes a TEXT value a byte at a time; the version here copies the runs between backslashes
 * at once, to the same text (its probes checked the same way), and hands every other kind on.
 *
 * A program that does not link this target (the library products alone) keeps libical's
 * functions as they are.
 */

/// Whether libical's parser reaches the table-driven functions of this file: it parses a
/// one-line event (an X- property) and tells whether the name look-up it asked for came here.
/// It does when the executable exports them (a linker exports an executable's definition of a
/// symbol a shared library also defines) and libical calls them through its PLT.
int taskcal_lookups_installed(void);

/// Whether the canonical date-time forms are read here (false when the check at first use found
/// libical's reader giving something else).
int taskcal_lookups_reads_times(void);

/// Whether libical's serializer reaches the value writer of this file: it writes a SUMMARY and
/// tells whether the value was asked for here.
int taskcal_value_writer_installed(void);

/// Whether TEXT, DATE and DATE-TIME values are written here (false when the check at first use
/// found libical writing one of its probes otherwise).
int taskcal_lookups_writes_values(void);

/// Whether libical's parser reaches the TEXT reader of this file: it parses a one-line event (a
/// SUMMARY) and tells whether its value was asked for here.
int taskcal_text_reader_installed(void);

/// Whether TEXT values are read here (false when the check at first use found libical reading
/// one of its probes otherwise).
int taskcal_lookups_reads_texts(void);

/// libical's own functions, for the tests that hold the tables to them.
icalproperty_kind taskcal_libical_property_string_to_kind(const char *string);
const char *taskcal_libical_property_kind_to_string(icalproperty_kind kind);
icalvalue_kind taskcal_libical_property_kind_to_value_kind(icalproperty_kind kind);
int taskcal_libical_property_kind_is_valid(icalproperty_kind kind);
int taskcal_libical_value_kind_is_valid(icalvalue_kind kind);
struct icaltimetype taskcal_libical_time_from_string(const char *string);
char *taskcal_libical_value_as_ical_string_r(const icalvalue *value);
icalvalue *taskcal_libical_value_new_from_string(icalvalue_kind kind, const char *str);

#endif
