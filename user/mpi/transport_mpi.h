// SPDX-License-Identifier: GPL-3.0-or-later
/* The MPI back-end of ranks/transport.h (adaptrm-mpi only). */
#ifndef ADAPTRM_TRANSPORT_MPI_H
#define ADAPTRM_TRANSPORT_MPI_H
#include "ranks/transport.h"
/* This process's end of MPI_COMM_WORLD (after MPI_Init_thread). */
struct transport *mpi_transport(void);
#endif
