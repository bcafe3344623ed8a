"""Online learning algorithms (experts, online submodular maximisation, private follow-the-leader)."""
