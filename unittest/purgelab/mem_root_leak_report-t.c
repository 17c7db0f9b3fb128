/* Copyright (c) 2026, purgelab developers.

   This program is free software; you can redistribute it and/or modify
   it under the terms of the GNU General Public License as published by
   the Free Software Foundation; version 2 of the License.

   This program is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
   GNU General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program; if not, write to the Free Software
   Foundation, Inc., 51 Franklin St, Fifth Floor, Boston, MA 02110-1335  USA */

/*
  safemalloc's leak report names the MEM_ROOT of each leaked root block
  (debug builds).  Linked against the debug flavour's libmysys, libstrings
  and libdbug: named roots get blocks every way my_alloc.c mallocs them
  (alloc_root, the preallocated block of init_alloc_root, reset_root_defaults,
  move_root to another root), then sf_report_leaked_memory() is run with
  stderr captured, and the report must have one "for MEM_ROOT <name>" line
  per block of each root, none for a plain my_malloc() block, and none once
  the roots are freed.  TAP output; the exit status is the verdict.
*/

#include <my_global.h>
#include <my_sys.h>
#include <string.h>
#include <unistd.h>

#if defined(DBUG_OFF) || !defined(SAFEMALLOC)
# error "this test needs a debug build with safemalloc"
#endif

static int tests, failures;
static const char *report;      /* the last report, for diagnostics */

static void ok(int passed, const char *what)
{
  printf("%sok %d - %s\n", passed ? "" : "not ", ++tests, what);
  if (!passed)
    failures++;
}

/** @return what sf_report_leaked_memory(0) prints (malloc()ed) */
static char *leak_report(void)
{
  FILE *tmp= tmpfile();
  int saved;
  long size;
  char *text;

  if (!tmp)
  {
    perror("tmpfile");
    exit(2);
  }
  fflush(stderr);
  saved= dup(2);
  dup2(fileno(tmp), 2);
  sf_report_leaked_memory(0);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);

  fseek(tmp, 0, SEEK_END);
  size= ftell(tmp);
  rewind(tmp);
  text= malloc((size_t) size + 1);
  if (!text || fread(text, 1, (size_t) size, tmp) != (size_t) size)
    exit(2);
  text[size]= 0;
  fclose(tmp);
  return text;
}

/** @return how many "bytes lost" lines of the report contain needle */
static int lost_lines(const char *text, const char *needle)
{
  int n= 0;
  const char *line= text;
  while (*line)
  {
    const char *end= strchr(line, '\n');
    size_t length= end ? (size_t) (end - line) : strlen(line);
    char buf[4096];
    set_if_smaller(length, sizeof(buf) - 1);
    memcpy(buf, line, length);
    buf[length]= 0;
    if (strstr(buf, " bytes lost at ") && strstr(buf, needle))
      n++;
    line+= length + (end ? 1 : 0);
  }
  return n;
}

/** @return the blocks a root holds */
static int blocks(const MEM_ROOT *root)
{
  int n= 0;
  const USED_MEM *b;
  for (b= root->used; b; b= b->next)
    n++;
  for (b= root->free; b; b= b->next)
    n++;
  return n;
}

/** the report's text for a root named at line of this file */
static void site_needle(char *buf, size_t size, int line)
{
  const char *base= strrchr(__FILE__, '/');
  snprintf(buf, size, "/%s:%d at ", base ? base + 1 : __FILE__, line);
}

#define LONG_NAME "purgelab-" \
  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" \
  "-the-tail-of-a-long-name"

int main(int argc __attribute__((unused)), char **argv)
{
  MEM_ROOT grow, pre, reset, to, from, longname, unnamed, prot;
  int grow_line, pre_line, reset_line, prot_line, i, expected, n;
  int labelled0, lost0;
  char needle[256], what[512];
  char *text;
  void *plain;
  const myf mprotect_flag= MYF(MY_ROOT_USE_MPROTECT);

  MY_INIT(argv[0]);
  printf("1..14\n");

  text= leak_report();
  labelled0= lost_lines(text, " for MEM_ROOT ");
  lost0= lost_lines(text, "");
  free(text);

  /* alloc_root() */
  grow_line= __LINE__ + 1;
  init_alloc_root(PSI_NOT_INSTRUMENTED, &grow, 256, 0, MYF(0));
  for (i= 0; i < 10; i++)
    alloc_root(&grow, 200);
  /* the preallocated block of init_alloc_root() */
  pre_line= __LINE__ + 1;
  init_alloc_root(PSI_NOT_INSTRUMENTED, &pre, 256, 1024, MYF(0));
  /* reset_root_defaults() */
  reset_line= __LINE__ + 1;
  init_alloc_root(PSI_NOT_INSTRUMENTED, &reset, 256, 0, MYF(0));
  reset_root_defaults(&reset, 2048, 2048);
  /* move_root(): full blocks (the used list) go to the other root */
  init_alloc_root_named(PSI_NOT_INSTRUMENTED, &to, 256, 0, MYF(0),
                        "purgelab-test-to");
  init_alloc_root_named(PSI_NOT_INSTRUMENTED, &from, 256, 0, MYF(0),
                        "purgelab-test-from");
  for (i= 0; i < 3; i++)
    alloc_root(&from, 1000);
  alloc_root(&from, 10);
  move_root(&to, &from);
  /* a name longer than the label keeps its end */
  init_alloc_root_named(PSI_NOT_INSTRUMENTED, &longname, 256, 0, MYF(0),
                        LONG_NAME);
  alloc_root(&longname, 10);
  /* the function, not the macro: no name */
  (init_alloc_root)(PSI_NOT_INSTRUMENTED, &unnamed, 256, 0, MYF(0));
  alloc_root(&unnamed, 10);
  /* mmap()ed blocks are not safemalloc's */
  prot_line= __LINE__ + 1;
  init_alloc_root(PSI_NOT_INSTRUMENTED, &prot, 4096, 0, mprotect_flag);
  alloc_root(&prot, 10);
  /* not a root's */
  plain= my_malloc(PSI_NOT_INSTRUMENTED, 100, MYF(0));

  report= text= leak_report();

  n= blocks(&grow);
  ok(n >= 2, "alloc_root() made several blocks");
  site_needle(needle, sizeof needle, grow_line);
  snprintf(what, sizeof what, "the %d blocks of alloc_root() are reported "
           "for their root", n);
  ok(lost_lines(text, needle) == n, what);

  site_needle(needle, sizeof needle, pre_line);
  ok(blocks(&pre) == 1 && lost_lines(text, needle) == 1,
     "the preallocated block of init_alloc_root() is reported for its root");

  site_needle(needle, sizeof needle, reset_line);
  ok(blocks(&reset) == 1 && lost_lines(text, needle) == 1,
     "the block of reset_root_defaults() is reported for its root");

  ok(blocks(&to) == 3 &&
     lost_lines(text, " for MEM_ROOT purgelab-test-to at ") == 3,
     "blocks moved by move_root() are reported for the root they went to");
  ok(blocks(&from) == 1 &&
     lost_lines(text, " for MEM_ROOT purgelab-test-from at ") == 1,
     "the block move_root() left is reported for its root");

  ok(lost_lines(text, " for MEM_ROOT ...xxxxxxxxxx") == 1 &&
     lost_lines(text, "-the-tail-of-a-long-name at ") == 1,
     "a long name is shortened to its end");

  ok(lost_lines(text, " for MEM_ROOT unnamed at ") >= 1,
     "a root initialised without a name is reported as unnamed");

  site_needle(needle, sizeof needle, prot_line);
  ok(lost_lines(text, needle) == 0,
     "mmap()ed blocks of an MY_ROOT_USE_MPROTECT root are not labelled");

  expected= blocks(&grow) + blocks(&pre) + blocks(&reset) + blocks(&to) +
            blocks(&from) + blocks(&longname) + blocks(&unnamed);
  snprintf(what, sizeof what,
           "exactly the %d root blocks are labelled (%d labelled lines)",
           expected, lost_lines(text, " for MEM_ROOT ") - labelled0);
  ok(lost_lines(text, " for MEM_ROOT ") - labelled0 == expected, what);
  ok(lost_lines(text, "") - lost0 == expected + 1,
     "the plain my_malloc() block is reported, without a label");

  free_root(&grow, MYF(0));
  free_root(&pre, MYF(0));
  free_root(&reset, MYF(0));
  free_root(&to, MYF(0));
  free_root(&from, MYF(0));
  free_root(&longname, MYF(0));
  free_root(&unnamed, MYF(0));
  free_root(&prot, MYF(0));
  my_free(plain);

  if (failures)
  {
    const char *line;
    printf("# the report was:\n");
    for (line= report; *line; )
    {
      const char *end= strchr(line, '\n');
      int length= end ? (int) (end - line) : (int) strlen(line);
      printf("# %.*s\n", length, line);
      line+= length + (end ? 1 : 0);
    }
  }

  text= leak_report();
  ok(lost_lines(text, " for MEM_ROOT ") == labelled0,
     "no labelled block is left once the roots are freed");
  ok(lost_lines(text, "") == lost0, "nothing else is left either");
  ok(sf_sanity() == 0, "safemalloc's block list is consistent");
  free(text);
  free((void*) report);

  my_end(0);
  return failures ? 1 : 0;
}
