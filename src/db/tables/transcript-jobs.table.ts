export interface TranscriptJobsTable {
  call_id: string;
  customer_id: string;
  status: 'pending' | 'done' | 'expired' | 'cancelled';
  attempts: number;
  next_attempt_at: Date;
  deadline_at: Date;
  leased_until: Date | null;
  last_result: string | null;
  created_at: Date;
}
