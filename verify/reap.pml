/*
 * The reaper's removal of one stale backing file, a JVM starting with the same pid and user,
 * a second reaper run and an attacker, as SPIN sees them: every interleaving of their steps.
 *
 *   spin -a [-DVARIANT] verify/reap.pml && cc -O2 -DSAFETY -o pan pan.c && ./pan
 *   (scripts/verify.sh runs every configuration and the broken variants.)
 *
 * The world. A sticky temp dir whose entry hsperfdata_u leads to the namespace N (a directory
 * of user u, mode 0755), or, once the owner swapped it, to another directory D of theirs or to
 * a symlink. Each directory has two names: P (the pid, the name the plan judged) and X (any
 * other name). At the start N/P is the stale file J (regular, owner u, one link, unlocked:
 * the plan judged it stale) and D/P is a sentinel S, which is outside the namespace that was
 * judged. Inodes are numbers; a name holds an inode number or 0.
 *
 * One step of a process is one system call, atomic as the kernel makes it (open by name,
 * fstat, flock, rename, unlink, link): the assumption of the model. The owner's identity,
 * which the reaper takes before it touches the namespace, is not modelled as a step: it
 * decides what the reaper may do in the namespace (what its owner may), not when.
 *
 * Processes:
 *   Reaper(1), Reaper(2): two runs with the same plan (a timer overlapping a manual run), each
 *     step by step as src/platform/posix/reap_posix.cpp does it (remove_entry, unlink_checked).
 *   Jvm: a JVM of user u given pid P, as HotSpot 17 starts (docs/POLICY.md, sections 2 and 3):
 *     the start-up cleanup of its own namespace, then open(O_RDWR|O_CREAT|O_NOFOLLOW), the link
 *     count, flock(LOCK_EX|LOCK_NB); a lock already taken makes it run blind. It may also have
 *     been caught by the plan between its open and its flock (JVM_MID_CREATE).
 *   Owner: the namespace's owner as attacker, MAX_ACTS actions (rename, unlink, link, create,
 *     symlink, flock inside N; swap hsperfdata_u for D or a symlink and back). Left out with
 *     -DNO_OWNER: then the attacker is another unprivileged user, who can do nothing the model
 *     holds (the temp dir is sticky, N is 0755, the files 0600: no rename, unlink, create, open
 *     or lock of u's entries), and every property must hold without the owner's exemptions.
 *
 * Broken variants (each must give a counterexample; scripts/verify.sh checks that they do):
 *   -DNO_RELOOKUP  the reaper does not look the name up again after its flock;
 *   -DNO_FLOCK     the reaper takes no lock on the entry;
 *   -DNO_COMPARE   the reaper does not compare the held entry with the judged one.
 * And the documented limit, -DSTRICT_REPORT (see the assertion), which must fail too.
 *
 * The bound: MAX_ACTS owner actions (3 by default), two reapers, one JVM, one entry judged;
 * every interleaving within it is explored (the search is exhaustive, not sampled).
 */

#ifndef MAX_ACTS
#define MAX_ACTS 3
#endif

#define NONE 0
/* inodes */
#define J 1          /* the judged stale file, N/P at the start */
#define S 2          /* the sentinel, D/P: outside the judged namespace */
#define MAXI 9       /* J, S, up to MAX_ACTS of the owner's, one of the JVM's, and spare */
/* kinds */
#define REG 1
#define LNK 2
/* directories and names */
#define DN 0
#define DD 1
#define SP 0
#define SX 1
#define at(d, s) dent[(d) * 2 + (s)]
/* what hsperfdata_u leads to */
#define TO_N 0
#define TO_D 1
#define TO_LINK 2
/* lock holders */
#define FREE 0
/* 1 and 2: the reapers */
#define BY_JVM 3
#define BY_CLEANUP 4
#define BY_OWNER 5
/* outcomes, as the report names them */
#define PENDING 0
#define REMOVED 1
#define VANISHED 2
#define BECAME_LIVE 3
#define CHANGED 4
#define FAILED 5

byte kind[MAXI];
byte nlink[MAXI];
byte lockh[MAXI];
byte dent[4];
byte tmp_ns = TO_N;
byte next_inode = 3;

/* Ghost state: what the properties speak of. */
bool jvm_live = false;      /* a JVM holds the lock of its file and runs */
byte jvm_inode = NONE;
bool jvm_blind = false;
bool blind_by_reaper = false;  /* the lock its flock met was a reaper's */
bool owner_acted = false;
bool in_window[3];          /* reaper r is between its re-lookup and its unlink */
bool raced[3];              /* the owner acted while reaper r was in that window */
byte outcome[3];
byte held[3];               /* the inode reaper r holds open */
byte unlinked[3];           /* the inode whose name reaper r's unlink removed */

inline new_inode(i) {
  i = next_inode;
  next_inode++;
  assert(next_inode <= MAXI);
  kind[i] = REG;
  nlink[i] = 1;
}

/* The owner acted: any reaper in its window is raced. */
inline owner_step() {
  owner_acted = true;
  raced[1] = raced[1] || in_window[1];
  raced[2] = raced[2] || in_window[2]
}

proctype Reaper(byte me) {
  byte h, v;
  /* Reopen hsperfdata_u (O_NOFOLLOW|O_DIRECTORY) and compare it with the judged (dev, ino):
     a symlink is refused, another directory is "namespace-changed". From here the reaper
     works through the descriptor: the directory it holds is N whatever the name leads to. */
  if
  :: tmp_ns != TO_N -> outcome[me] = FAILED; goto done
  :: else -> skip
  fi;
  /* openat(dirfd, P, O_RDONLY|O_NOFOLLOW|O_NONBLOCK): holds the inode the name leads to now. */
  d_step {
    h = at(DN, SP);
    held[me] = h
  };
  if
  :: h == NONE -> outcome[me] = VANISHED; goto done
#ifndef NO_COMPARE
  :: h != NONE && kind[h] == LNK -> outcome[me] = CHANGED; goto done   /* ELOOP */
#endif
  :: else -> skip
  fi;
#ifndef NO_COMPARE
  /* fstat: the judged (dev, ino, kind, owner), one link, the namespace's mount. */
  if
  :: h != J || nlink[h] != 1 -> outcome[me] = CHANGED; goto done
  :: else -> skip
  fi;
#endif
#ifndef NO_FLOCK
  /* flock(LOCK_EX|LOCK_NB): taken means a JVM (or another reaper) holds it: became live. */
  atomic {
    if
    :: lockh[h] == FREE -> lockh[h] = me
    :: else -> outcome[me] = BECAME_LIVE; goto done
    fi
  };
#endif
  /* fstatat(dirfd, P, AT_SYMLINK_NOFOLLOW): the name must still lead to the held inode. */
  atomic {
#ifndef NO_RELOOKUP
    v = at(DN, SP);
    if
    :: v == NONE -> outcome[me] = VANISHED; goto release   /* ENOENT */
    :: v != NONE && v != h -> outcome[me] = CHANGED; goto release   /* renamed-while-locked */
    :: else -> skip
    fi;
#endif
    in_window[me] = true
  };
  /* The journal's write-ahead line, then unlinkat(dirfd, P): by name, whatever it leads to. */
  atomic {
    in_window[me] = false;
    v = at(DN, SP);
    if
    :: v == NONE -> outcome[me] = VANISHED; goto release
    :: else -> skip
    fi;
    at(DN, SP) = NONE;
    nlink[v]--;
    unlinked[me] = v;
    /* Never the name of a live JVM's locked file, unless the owner raced this very instant
       (and then only what the owner could have removed: a name in their own directory). */
    assert(!(jvm_live && v == jvm_inode) || raced[me]);
  };
  /* fstat(handle): the held inode must have lost its last name. */
  if
  :: nlink[h] == 0 -> outcome[me] = REMOVED
  :: else -> outcome[me] = FAILED   /* swapped-during-unlink */
  fi;
release:
  skip;
  d_step {
    if
    :: lockh[h] == me -> lockh[h] = FREE
    :: else -> skip
    fi
  };
done:
  /* Every removal reported is of the judged inode, which has no name left; any other name
     the reaper removed was removed while the owner raced it. */
  assert(outcome[me] != REMOVED || (h == J && nlink[J] == 0));
  assert(unlinked[me] == NONE || unlinked[me] == J || raced[me]);
#ifdef STRICT_REPORT
  /* What cannot be had (the documented limit): that a removal reported is also the only name
     the reaper removed. In the instant between the re-lookup and the unlink the owner can
     unlink P (the judged file, whose lock the reaper holds) and a new file can take the name
     (the owner's, or that of a JVM of that pid starting then): the reaper's unlink takes the
     new name, and the judged inode has no name left, as "removed" says. Linux has no "unlink
     this inode"; the owner could have removed the new file themselves. Without the owner
     (-DNO_OWNER) this assertion holds: no JVM or reaper can do it. */
  assert(outcome[me] != REMOVED || unlinked[me] == J);
#endif
  /* Nothing outside the judged namespace: the sentinel keeps its name. */
  assert(at(DD, SP) == S || owner_acted)
}

/* Where the JVM's path /tmp/hsperfdata_u leads now. HotSpot opens the directory by that path
   (refusing a symlink), makes it its working directory, and works in it by relative names:
   once for the start-up cleanup, once again to create its file. */
inline jvm_dir(d) {
  if
  :: tmp_ns == TO_N -> d = DN
  :: tmp_ns == TO_D -> d = DD
  :: else -> d = 255
  fi
}

inline go_blind() {
  jvm_blind = true;
  goto jvm_end
}

proctype Jvm(bool mid_create) {
  byte d, e, x;
  if
  :: mid_create -> e = J; goto jvm_lock   /* J is its own file, opened but not yet locked */
  :: else -> skip
  fi;
  /* Start-up cleanup of its own pid's entry, in the directory it opened: open the entry, try
     its lock; locked means live, kept; otherwise (its own pid) unlinked by name, then closed. */
  jvm_dir(d);
  if
  :: d == 255 -> go_blind()
  :: else -> skip
  fi;
  atomic {
    e = at(d, SP);
    if
    :: e != NONE && kind[e] == REG && lockh[e] == FREE -> lockh[e] = BY_CLEANUP
    :: else -> e = NONE
    fi
  };
  if
  :: e != NONE ->
     atomic {
       if
       :: d != 255 && at(d, SP) != NONE ->
          x = at(d, SP);
          at(d, SP) = NONE;
          nlink[x]--
       :: else -> skip
       fi
     };
     d_step { lockh[e] = FREE }
  :: else -> skip
  fi;
  /* open(P, O_RDWR|O_CREAT|O_NOFOLLOW, 0600): no O_EXCL, an existing file is reused. */
  jvm_dir(d);
  atomic {
    if
    :: d == 255 -> go_blind()
    :: d != 255 && at(d, SP) == NONE -> new_inode(e); at(d, SP) = e
    :: d != 255 && at(d, SP) != NONE && kind[at(d, SP)] == LNK -> go_blind()   /* ELOOP */
    :: else -> e = at(d, SP)
    fi
  };
  if
  :: nlink[e] > 1 -> go_blind()
  :: else -> skip
  fi;
jvm_lock:
  /* flock(LOCK_EX|LOCK_NB), held for the JVM's life. */
  atomic {
    if
    :: lockh[e] == FREE -> lockh[e] = BY_JVM; jvm_live = true; jvm_inode = e
    :: else ->
       blind_by_reaper = (lockh[e] == 1 || lockh[e] == 2);
       go_blind()
    fi
  };
jvm_end:
  /* Left blind only by the owner, or in the one window the reaper has: it held the lock of
     this very inode, from its flock to its close, when the JVM's flock came. */
  assert(!jvm_blind || owner_acted || blind_by_reaper)
}

proctype Owner() {
  byte n, i, t;
  do
  :: n < MAX_ACTS ->
     n++;
     atomic {
       if
       :: at(DN, SP) != NONE ->                  /* rename P X (over X) */
          t = at(DN, SX);
          if :: t != NONE -> nlink[t]-- :: else -> skip fi;
          at(DN, SX) = at(DN, SP); at(DN, SP) = NONE
       :: at(DN, SX) != NONE ->                  /* rename X P (over P) */
          t = at(DN, SP);
          if :: t != NONE -> nlink[t]-- :: else -> skip fi;
          at(DN, SP) = at(DN, SX); at(DN, SX) = NONE
       :: at(DN, SX) == NONE ->                  /* a new file named X */
          new_inode(i); at(DN, SX) = i
       :: at(DN, SX) == NONE ->                  /* a symlink named X (to the sentinel) */
          new_inode(i); kind[i] = LNK; at(DN, SX) = i
       :: at(DN, SX) == NONE && at(DN, SP) != NONE && kind[at(DN, SP)] == REG ->
          nlink[at(DN, SP)]++; at(DN, SX) = at(DN, SP)   /* link P X */
       :: at(DN, SP) != NONE -> nlink[at(DN, SP)]--; at(DN, SP) = NONE   /* unlink P */
       :: at(DN, SX) != NONE -> nlink[at(DN, SX)]--; at(DN, SX) = NONE   /* unlink X */
       :: at(DN, SP) != NONE && kind[at(DN, SP)] == REG && lockh[at(DN, SP)] == FREE ->
          lockh[at(DN, SP)] = BY_OWNER                   /* flock its own file */
       :: tmp_ns == TO_N -> tmp_ns = TO_D                /* swap hsperfdata_u for D */
       :: tmp_ns == TO_N -> tmp_ns = TO_LINK             /* ... or for a symlink */
       :: tmp_ns != TO_N -> tmp_ns = TO_N                /* and back */
       fi;
       owner_step()
     }
  :: break
  od
}

init {
  atomic {
    kind[J] = REG; nlink[J] = 1; at(DN, SP) = J;
    kind[S] = REG; nlink[S] = 1; at(DD, SP) = S;
    run Reaper(1);
    run Reaper(2);
    if
    :: run Jvm(false)
    :: run Jvm(true)
    fi;
#ifndef NO_OWNER
    run Owner()
#endif
  }
}
